/** The viewer's bundled files (`/viewer/{asset}`): the same handler as its page, deployed as a function of its own. */
export { handler } from './get-viewer';
