/** Service settings from the environment, read once: the domains and the plan table with its overrides. */
import { parseDomains } from './address';
import { loadPlans, type Plan, type PlanName } from './plans';

export interface Settings {
  domains: string[];
  plans: Record<PlanName, Plan>;
  /** Lifetime of attachment download links. */
  downloadUrlSeconds: number;
}

let cached: Settings | undefined;

export function settings(): Settings {
  cached ??= {
    domains: parseDomains(process.env.TEMPMAIL_DOMAINS),
    plans: loadPlans(process.env.TEMPMAIL_PLAN_OVERRIDES),
    downloadUrlSeconds: 900,
  };
  return cached;
}
