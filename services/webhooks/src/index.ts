// What other workspaces may use: the service entry point and the receiver-side verifier.
export { start, type StartedWebhooks } from './main';
export { verifyWebhook, type VerifyResult, type VerifiedEvent, type HeaderBag } from './verify';
