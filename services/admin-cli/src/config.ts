import { logLevel, serviceAddressSchema, z } from '@propdesk/kit';

/** The CLI finds the services the way every other process does (same variables as npm start). */
export const cliConfigSchema = serviceAddressSchema.extend({
  LOG_LEVEL: logLevel.default('warn'),
});

export type CliConfig = z.infer<typeof cliConfigSchema>;
