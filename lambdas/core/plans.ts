/**
 * The plan table: the one place that states a plan's limits. Usage plans (CDK), the authorizer,
 * the ingest quota and the local token bucket all read it.
 */
export const PLAN_NAMES = ['free', 'dev', 'startup', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  name: PlanName;
  api_access: boolean;
  requests_per_minute: number;
  emails_per_day: number;
  max_ttl_seconds: number;
  /** Webhooks an account may hold at once (POST /v1/webhooks past it is 403). */
  max_webhooks: number;
  /**
   * Live inboxes an account may hold at once (POST /v1/inboxes past it is 409): without a bound one key could claim
   * a username on every domain, or fill the store with empty inboxes.
   */
  max_inboxes: number;
  /**
   * Mails one inbox may receive a day (UTC), beside the account's `emails_per_day`; unset: no cap beyond the
   * account's. The defence against a stranger who knows one address spending the whole account's day on it.
   */
  emails_per_inbox_per_day?: number;
  /**
   * Bytes an account's stored mail may take at once: each message's raw mail plus its attachments (the objects it
   * keeps in the bucket). Mail past it is refused (SMTP 452, or 552 for one mail larger than the whole quota) until
   * messages or inboxes are deleted or expire. Without it one address could fill the disk with 1,000 × 40 MB a day.
   */
  storage_bytes: number;
}

/** Fields a plan may leave unset; TEMPMAIL_PLAN_OVERRIDES may still set them. */
const OPTIONAL_FIELDS: readonly string[] = ['emails_per_inbox_per_day'] satisfies (keyof Plan)[];

const DAY = 86_400;
const GB = 1024 ** 3;

export const BASE_PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { name: 'free', api_access: false, requests_per_minute: 0, emails_per_day: 0, max_ttl_seconds: 0, max_webhooks: 0, max_inboxes: 0, storage_bytes: 0 },
  dev: { name: 'dev', api_access: true, requests_per_minute: 60, emails_per_day: 1_000, max_ttl_seconds: DAY, max_webhooks: 2, max_inboxes: 1_000, storage_bytes: 2 * GB },
  startup: { name: 'startup', api_access: true, requests_per_minute: 300, emails_per_day: 10_000, max_ttl_seconds: 7 * DAY, max_webhooks: 10, max_inboxes: 10_000, storage_bytes: 20 * GB },
  enterprise: { name: 'enterprise', api_access: true, requests_per_minute: 1_000, emails_per_day: 100_000, max_ttl_seconds: 30 * DAY, max_webhooks: 50, max_inboxes: 100_000, storage_bytes: 200 * GB },
};

export const PAID_PLANS = PLAN_NAMES.filter((p) => BASE_PLANS[p].api_access);

export const isPlanName = (value: unknown): value is PlanName =>
  typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);

/** The plans' longest inbox lifetimes as the API's documentation states them: "dev 1 day, startup 7 days, …". */
export function maxTtlByPlan(plans: Readonly<Record<PlanName, Plan>> = BASE_PLANS): string {
  const lifetime = (seconds: number) =>
    seconds % DAY === 0 ? `${seconds / DAY} day${seconds === DAY ? '' : 's'}` : `${seconds} seconds`;
  return PAID_PLANS.map((name) => `${name} ${lifetime(plans[name].max_ttl_seconds)}`).join(', ');
}

/** Token bucket refill rate in requests per second. */
export const ratePerSecond = (plan: Plan): number => plan.requests_per_minute / 60;

/** Token bucket size: a tenth of a minute's requests, at least 10. */
export const burstOf = (plan: Plan): number => Math.max(10, Math.ceil(plan.requests_per_minute / 6));

/**
 * The plan table with `TEMPMAIL_PLAN_OVERRIDES` (JSON, e.g. `{"dev": {"emails_per_day": 5}}`) merged over it,
 * so tests and benchmarks can shape limits without editing code.
 */
export function loadPlans(overridesJson: string | undefined): Record<PlanName, Plan> {
  const plans = structuredClone(BASE_PLANS) as Record<PlanName, Plan>;
  if (!overridesJson) return plans;
  const overrides = JSON.parse(overridesJson) as Record<string, Partial<Plan>>;
  for (const [name, fields] of Object.entries(overrides)) {
    if (!isPlanName(name)) throw new Error(`TEMPMAIL_PLAN_OVERRIDES names an unknown plan: ${name}`);
    for (const [field, value] of Object.entries(fields ?? {})) {
      if (!(field in plans[name] || OPTIONAL_FIELDS.includes(field)) || field === 'name') throw new Error(`TEMPMAIL_PLAN_OVERRIDES: unknown field ${name}.${field}`);
      (plans[name] as unknown as Record<string, unknown>)[field] = value;
    }
  }
  return plans;
}
