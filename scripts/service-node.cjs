// A young generation of 16 MB semi-spaces, set rather than left to V8 (which sizes it from the heap
// limit, smaller in a container): each request's short-lived objects (HTTP, gRPC, pg rows) die
// young instead of being promoted and collected by full GCs. Not larger: a scavenge stops the
// process for as long as it takes, and with 32 MB semi-spaces one took about 15 ms in the gateway
// under a single client (6 ms in the accounts service), long enough to be the p99 of a 3 ms
// request, and keyed writes, which allocate more, met them more often. With 16 MB the gateway bench
// showed the same throughput at 32 clients and a lower write p99 at 1 and 32.
// Kept if set already.
function serviceNodeOptions(current = '') {
  return /--max-semi-space-size/.test(current) ? current : `${current} --max-semi-space-size=16`.trim();
}

// And an old generation that starts at 128 MB (V8 flag, not accepted in NODE_OPTIONS): socket and
// message buffers make V8 collect early ("external memory pressure"), and with the default small
// initial old space every promotion then ends in a full GC, several a second under load; those
// pauses were the services' latency tail.
const NODE_FLAGS = ['--initial-old-space-size=128'];

module.exports = { serviceNodeOptions, NODE_FLAGS };
