const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are checked before they reach SQL, so a malformed one is "not found", never a failed uuid cast. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
