import { Branched, Consumed, Named, Produced, Serdes, StreamsBuilder, type Topology } from "../../lib/index.ts";

/** An order as the shop front writes it to the `orders` topic, keyed by customer id. */
export interface Order {
  orderId: string;
  customerId: string;
  region: "eu" | "us" | "apac";
  items: { sku: string; quantity: number; unitPrice: number }[];
  placedAt: number;
}

/** What leaves the service: the order with its total, routed by size. */
export interface PricedOrder {
  orderId: string;
  customerId: string;
  region: string;
  total: number;
  itemCount: number;
}

export interface OrdersTopics {
  orders: string;
  large: string;
  regular: string;
}

export const LARGE_ORDER_TOTAL = 500;

/**
 * Prices every order, drops orders without items, and routes large orders (total of
 * LARGE_ORDER_TOTAL or more) to their own topic for review; the rest go to `regular`.
 * Orders that cannot be decoded go to the dead-letter topic configured on the app.
 */
export function ordersTopology(topics: OrdersTopics = { orders: "orders", large: "orders-large", regular: "orders-regular" }): Topology {
  const builder = new StreamsBuilder();
  const priced = builder
    .stream(topics.orders, Consumed.with(Serdes.string(), Serdes.json<Order>()))
    .filter((_, order): order is Order => order !== null && order.items.length > 0, Named.as("has-items"))
    .mapValues(
      (order): PricedOrder => ({
        orderId: order.orderId,
        customerId: order.customerId,
        region: order.region,
        total: Math.round(order.items.reduce((sum, i) => sum + i.quantity * i.unitPrice, 0) * 100) / 100,
        itemCount: order.items.reduce((sum, i) => sum + i.quantity, 0),
      }),
      Named.as("price"),
    );
  const routes = priced
    .split(Named.as("route-"))
    .branch((_, order) => order.total >= LARGE_ORDER_TOTAL, Branched.as("large"))
    .defaultBranch(Branched.as("regular"));
  const produced = Produced.with(Serdes.string(), Serdes.json<PricedOrder>());
  routes["route-large"]!.to(topics.large, produced);
  routes["route-regular"]!.to(topics.regular, produced);
  return builder.build();
}
