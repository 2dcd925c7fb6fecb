import type { Stores } from '../store';
import type { Settings } from '../core/settings';

/** What a use case runs against: storage behind interfaces, settings, and a clock. */
export interface AppContext {
  stores: Stores;
  settings: Settings;
  now: () => number;
}
