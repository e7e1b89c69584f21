// Generated contracts, one namespace per service package.
export * as commonv1 from './common-v1';
export * as authv1 from './auth-v1';
export * as accountsv1 from './accounts-v1';
export * as tradingv1 from './trading-v1';
export * as webhooksv1 from './webhooks-v1';
