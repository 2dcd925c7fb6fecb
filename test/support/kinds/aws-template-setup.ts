import { startSharedStack } from '../global-setup';

export default () => startSharedStack('aws-template');
