import { isExactDecimalLiteral } from '@propdesk/kit';

/**
 * JSON.parse reads every number as the nearest double, silently: 0.0099999999999999999 becomes
 * 0.01, 1e-2000 becomes 0, 9007199254740993 becomes 9007199254740992. The schemas then see a
 * neighbour of what the client wrote. This walks the raw body (already valid JSON: the parser
 * accepted it) and finds the first number literal its double does not stand for exactly; the
 * answer is the top-level field it sits in (what `param` names elsewhere), or `body`.
 */
export function inexactNumberField(raw: string): string | undefined {
  // One frame per open object or array; only the outermost object's current key matters.
  const stack: Array<{ object: boolean; expectKey: boolean }> = [];
  let topKey: string | undefined;
  let i = 0;
  while (i < raw.length) {
    const c = raw.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      while (j < raw.length && raw.charCodeAt(j) !== 0x22) j += raw.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      const frame = stack[stack.length - 1];
      if (frame?.object && frame.expectKey) {
        frame.expectKey = false;
        if (stack.length === 1) topKey = JSON.parse(raw.slice(i, j + 1)) as string;
      }
      i = j + 1;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push({ object: c === 0x7b, expectKey: c === 0x7b });
      i += 1;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i += 1;
    } else if (c === 0x2c /* , */) {
      const frame = stack[stack.length - 1];
      if (frame?.object) frame.expectKey = true;
      i += 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < raw.length && /[0-9eE+.-]/.test(raw[j] as string)) j += 1;
      if (!isExactDecimalLiteral(raw.slice(i, j))) return stack[0]?.object && topKey !== undefined ? topKey : 'body';
      i = j;
    } else {
      i += 1;
    }
  }
  return undefined;
}
