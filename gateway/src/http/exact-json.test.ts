import { inexactNumberField } from './exact-json';

describe('number literals a double does not keep', () => {
  it('finds none in ordinary bodies', () => {
    expect(inexactNumberField('{"symbol":"EURUSD","volume":0.07,"price":1.05,"n":[1,2.5e3,-0],"s":"0.0099999999999999999"}')).toBeUndefined();
    expect(inexactNumberField('{"a":{"b":[{"c":1.10}]},"d":1e21}')).toBeUndefined();
  });

  it.each([
    ['{"volume":0.0099999999999999999}', 'volume'],
    ['{"symbol":"EURUSD","volume":1.0000000000000000001}', 'volume'],
    ['{"count":1,"initial_balance":1E-2000}', 'initial_balance'],
    ['{"nested":{"deep":[1,9007199254740993]},"x":1}', 'nested'],
    ['{"a\\"b":1e400}', 'a"b'],
    ['[1, 0.1000000000000000000000001]', 'body'],
  ])('finds %s in %s', (raw, field) => {
    expect(inexactNumberField(raw)).toBe(field);
  });
});
