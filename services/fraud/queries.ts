import type { StreamsApp } from "../../lib/index.ts";
import type { CardProfile, RiskState, SpendProfile } from "./model.ts";
import { SPEND_PROFILE_STORE } from "./spend-spike.ts";
import { CARD_PROFILE_STORE, noRisk, RISK_STORE } from "./topology.ts";

export interface CardRiskAnswer {
  cardId: string;
  /** The card with its customer, as payments are enriched with now; null once the card is deleted. */
  card: CardProfile | null;
  risk: RiskState;
  profile: SpendProfile | null;
}

/**
 * What GET /cards/<id> answers from this instance's stores (interactive queries): the card,
 * its risk state and spend profile, or null when this instance knows nothing of the card. Throws a
 * RetriableError while the stores are not queryable (restoring, rebalancing).
 */
export function cardRisk(app: Pick<StreamsApp, "store">, cardId: string): CardRiskAnswer | null {
  const risk = app.store<string, RiskState>(RISK_STORE).get(cardId);
  const profile = app.store<string, SpendProfile>(SPEND_PROFILE_STORE).get(cardId);
  const card = app.store<string, CardProfile>(CARD_PROFILE_STORE).get(cardId);
  if (risk === null && profile === null && card === null) return null;
  return { cardId, card, risk: risk ?? noRisk(cardId, card?.customerId), profile };
}
