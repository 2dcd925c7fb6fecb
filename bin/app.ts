/** `npx cdk synth` / `npx cdk deploy` entry. */
import { createApp } from '../lib/app';

createApp().app.synth();
