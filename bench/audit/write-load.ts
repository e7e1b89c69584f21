/**
 * The load of bench/audit.ts's write routes, in a process of its own (pinned like support/load.ts):
 * autocannon where every request is a change, so every one writes its audit entry.
 *  - assign: each cycle of a connection takes the next account of the list and assigns it to one
 *    holder, then to another (two account.assign entries; an event each);
 *  - rotate: each request rotates the executor password of the next account (account.rotate_credentials).
 * Taking the accounts in turn, connections rarely wait on one another's row lock.
 * argv[2]: JSON {route, url, token, numbers, connections, durationSec}; prints autocannon's result as JSON.
 */
interface Options {
  route: 'assign' | 'rotate';
  url: string;
  token: string;
  numbers: number[];
  connections: number;
  durationSec: number;
}

interface Request {
  method: string;
  path?: string;
  body?: string;
  setupRequest?: (request: Request, context: { account?: number }) => Request;
}

type Autocannon = (options: Record<string, unknown>, done: (err: Error | null, result: unknown) => void) => void;

// autocannon ships no types: the one call used here.
const autocannon = require('autocannon') as Autocannon;
const options = JSON.parse(process.argv[2] ?? '{}') as Options;
let next = 0;
const nextAccount = () => options.numbers[next++ % options.numbers.length];

const assign = (holder: 'a' | 'b'): Request => ({
  method: 'PUT',
  setupRequest(request, context) {
    if (holder === 'a') context.account = nextAccount();
    return { ...request, path: `/v1/accounts/${context.account}/trader`, body: JSON.stringify({ name: 'Bench Holder', email: `holder-${holder}@bench.test` }) };
  },
});

const rotate: Request = {
  method: 'POST',
  setupRequest: (request) => ({ ...request, path: `/v1/accounts/${nextAccount()}/credentials/rotate` }),
};

autocannon(
  {
    url: options.url,
    connections: options.connections,
    duration: options.durationSec,
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
    requests: options.route === 'assign' ? [assign('a'), assign('b')] : [rotate],
  },
  (err, result) => {
    if (err) throw err;
    process.stdout.write(JSON.stringify(result));
  },
);
