/** `npm start`: the local stack in the foreground until Ctrl-C or SIGTERM (local/serve.ts). */
import { serve } from './serve';

serve();
