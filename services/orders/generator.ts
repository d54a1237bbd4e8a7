import type { Order } from "./topology.ts";

const regions: Order["region"][] = ["eu", "us", "apac"];
const skus = ["kettle", "mug", "teapot", "scale", "grinder", "filter", "beans"];

/** A small deterministic generator (seeded LCG), so runs are repeatable. */
export function orderGenerator(seed = 42): () => Order {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  let sequence = 0;
  return () => {
    const itemCount = Math.floor(next() * 4); // 0..3 lines; 0 means an empty cart
    return {
      orderId: `o-${++sequence}`,
      customerId: `c-${Math.floor(next() * 1000)}`,
      region: regions[Math.floor(next() * regions.length)]!,
      items: Array.from({ length: itemCount }, () => ({
        sku: skus[Math.floor(next() * skus.length)]!,
        quantity: 1 + Math.floor(next() * 5),
        unitPrice: Math.round(next() * 20000) / 100,
      })),
      placedAt: Date.now(),
    };
  };
}
