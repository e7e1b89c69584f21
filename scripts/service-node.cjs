// How every service process is started (scripts/stack.mjs; the bench's baseline gets the same).
// The deploy manifests (deploy/) pass the same settings.

// A larger young generation than V8's default: each request's short-lived objects (HTTP, gRPC,
// pg rows) then die young instead of being promoted and collected by full GCs (measured on
// GET /v1/accounts under load: ~30% less CPU per request in the services). Kept if set already.
function serviceNodeOptions(current = '') {
  return /--max-semi-space-size/.test(current) ? current : `${current} --max-semi-space-size=32`.trim();
}

// And an old generation that starts at 128 MB (V8 flag, not accepted in NODE_OPTIONS): socket and
// message buffers make V8 collect early ("external memory pressure"), and with the default small
// initial old space every promotion then ends in a full GC, several a second under load; those
// pauses were the services' latency tail.
const NODE_FLAGS = ['--initial-old-space-size=128'];

module.exports = { serviceNodeOptions, NODE_FLAGS };
