/** The types of test/tiers.js (plain JavaScript, as jest.config.js requires it). */
export declare const TIERS: Readonly<Record<string, string>>;
export declare const FORMS: Readonly<Record<string, readonly string[]>>;
export declare const RERUN: Readonly<Record<string, readonly string[]>>;
export declare const ONLY_ON: Readonly<Record<string, string>>;
