/**
 * The reservations the SMTP stand-in holds between its 250 and the message's store (lambdas/usecases/ingest.ts:
 * admitMail, admitRecipient): counted per account and span, under one lock per account.
 */
/**
 * Mail that got (or is about to get) a 250 and is not stored yet, counted per account and UTC day, so that the daily
 * limit holds before the 250 and not only where the message is stored: the SMTP stand-in answers 452 to the mail
 * that would go past it, however many sessions race. Check and reserve run under one lock per account, and a
 * reservation is released once ingest has stored the mail (when the store's own count has taken it over).
 */
/** How long a refusing check waits for the mail being stored to land before it counts again. */
const STORING_SETTLE_MS = 5_000;

export class QuotaReservations {
  private readonly held = new Map<string, number>();
  private readonly locks = new Map<string, Promise<void>>();
  private readonly storing = new Set<Promise<void>>();

  count(accountId: string, day: string): number {
    return this.held.get(`${accountId}|${day}`) ?? 0;
  }

  /** Runs `work` with the account's lock held. */
  async locked<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const before = this.locks.get(accountId) ?? Promise.resolve();
    let unlock!: () => void;
    const mine = new Promise<void>((resolve) => (unlock = resolve));
    const chained = before.then(() => mine);
    this.locks.set(accountId, chained);
    await before;
    try {
      return await work();
    } finally {
      unlock();
      if (this.locks.get(accountId) === chained) this.locks.delete(accountId);
    }
  }

  add(units: Map<string, number>, day: string): { release(): void } {
    for (const [account, n] of units) this.held.set(`${account}|${day}`, this.count(account, day) + n);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const [account, n] of units) {
          const left = this.count(account, day) - n;
          if (left > 0) this.held.set(`${account}|${day}`, left);
          else this.held.delete(`${account}|${day}`);
        }
      },
    };
  }

  /**
   * Runs the ingest that stores reserved mail and then releases its reservation. While it runs, the store's count may
   * already include the mail while the reservation still holds it: counted twice, so a check then can refuse mail that
   * fits (a spurious 452, seen under load on DynamoDB Local). A check that refuses counts again after it (recheckedAfterStoring).
   */
  async whileStoring<T>(work: () => Promise<T>): Promise<T> {
    const run = work();
    const settled = run.then(() => undefined, () => undefined);
    this.storing.add(settled);
    try {
      return await run;
    } finally {
      this.storing.delete(settled);
    }
  }

  /**
   * `check` ('ok' or a refusal) counted again, when it refuses, once the mail being stored meanwhile has landed: a
   * limit really reached refuses twice; a mail counted twice (in the store and still reserved) does not.
   */
  async recheckedAfterStoring<T extends string>(check: () => Promise<T>): Promise<T> {
    const verdict = await check();
    if (verdict === 'ok' || !(await this.storedInFlight(STORING_SETTLE_MS))) return verdict;
    return check();
  }

  /**
   * Waits until the ingests storing now have returned (at most `withinMs`: a stalled store does not hold the check), and
   * says whether there were any: if so, a refusal may have counted a mail twice and is worth checking again.
   */
  private async storedInFlight(withinMs: number): Promise<boolean> {
    if (this.storing.size === 0) return false;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)));
    await Promise.race([Promise.all([...this.storing]), bound]);
    clearTimeout(timer);
    return true;
  }
}
