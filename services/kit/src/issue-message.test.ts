import { ConfigError, loadConfig, z } from './config';

describe('configuration errors', () => {
  const schema = z.object({ DATABASE_URL: z.string(), LOG_LEVEL: z.enum(['info', 'debug']).default('info'), PORT: z.coerce.number().int().min(1, 'must be a port, 1 to 65535') });

  it('name each variable and say its problem in words: missing, not in its list, against its own rule', () => {
    const said = () => {
      try {
        loadConfig(schema, { LOG_LEVEL: 'verbose', PORT: '0' }, false);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(said()).toBe('invalid configuration: DATABASE_URL is required; LOG_LEVEL: must be one of info, debug (not verbose); PORT: must be a port, 1 to 65535');
  });
});
