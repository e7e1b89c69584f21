/** A page of a list: SPEC's `{data, next_cursor}`. */
export interface Page<Item> {
  data: Item[];
  next_cursor: string | null;
}

/**
 * What a list method returns: nothing is fetched until it is iterated. `for await (const account
 * of pd.listAccounts())` walks every item of every page, following `next_cursor` (keyset cursors:
 * nothing repeats or vanishes while paging); `pages()` walks page by page; `firstPage()` fetches one.
 */
export class Paginator<Item, P extends Page<Item> = Page<Item>> implements AsyncIterable<Item> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<P>;
  readonly #startCursor: string | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<P>, startCursor?: string) {
    this.#fetchPage = fetchPage;
    this.#startCursor = startCursor;
  }

  /** The first page only (from the `cursor` given, if any). */
  firstPage(): Promise<P> {
    return this.#fetchPage(this.#startCursor);
  }

  /** Every page, in order, until next_cursor is null. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let cursor = this.#startCursor;
    do {
      const page = await this.#fetchPage(cursor);
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page in one array (at most `max` of them). */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<Item[]> {
    const items: Item[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}
