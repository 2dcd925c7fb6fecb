import { DependencyUnavailable } from '../core/errors';
import { isUnavailable } from './clients';

/** Runs a storage call and turns "cannot reach it" into DependencyUnavailable (a 503), leaving other errors be. */
export async function guard<T>(dependency: 'DynamoDB' | 'S3', call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isUnavailable(error)) throw new DependencyUnavailable(dependency, error);
    throw error;
  }
}
