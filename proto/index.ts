// Generated contracts, one namespace per service package.
export * as commonv1 from './gen/propdesk/common/v1/mode';
export * as authv1 from './gen/propdesk/auth/v1/auth_service';
export * as accountsv1 from './accounts-v1';
export * as tradingv1 from './trading-v1';
export * as webhooksv1 from './gen/propdesk/webhooks/v1/webhooks_service';
