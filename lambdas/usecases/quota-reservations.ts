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
export class QuotaReservations {
  private readonly held = new Map<string, number>();
  private readonly locks = new Map<string, Promise<void>>();

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
}
