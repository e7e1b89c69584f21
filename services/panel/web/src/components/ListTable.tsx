import { Fragment, type ReactNode } from 'react';

/**
 * A column of a list: its header, the cell of each item, and where the cell goes on a phone,
 * where each row becomes a card of label-and-value pairs, two to a line.
 */
export interface Column<T> {
  label: string;
  cell: (item: T) => ReactNode;
  /** Right-aligned figures (on a wide screen). */
  num?: boolean;
  /** A class for one item's cell (e.g. a loss in red). */
  cellClass?: (item: T) => string | undefined;
  /**
   * On a phone: `title` is the row's identity, shown first, in bold and without its label;
   * `wide` takes the card's whole width (long text); `actions` ends the card with its buttons.
   */
  phone?: 'title' | 'wide' | 'title-wide' | 'actions';
}

/** A column a role does not see is left out by passing a falsy entry. */
export type Columns<T> = Array<Column<T> | false | null | undefined>;

const PHONE_CLASSES: Record<NonNullable<Column<unknown>['phone']>, string> = {
  title: 'cell-title',
  wide: 'cell-wide',
  'title-wide': 'cell-title cell-wide',
  actions: 'cell-actions',
};

function cellClassName<T>(column: Column<T>, item: T): string | undefined {
  const classes = [column.num ? 'num' : undefined, column.phone ? PHONE_CLASSES[column.phone] : undefined, column.cellClass?.(item)].filter(Boolean);
  return classes.length > 0 ? classes.join(' ') : undefined;
}

/**
 * Every list of the panel: a captioned table, one header per column, a line saying so when there
 * is nothing to show, one row per item (and an optional detail row under it, e.g. a form). On a
 * wide screen it is a table that scrolls inside its card if it must; on a phone (styles.css,
 * `table.stack`) each row is a card with every cell's label written above it, so a row's identity,
 * money and actions are on screen without scrolling sideways. The labels are the column headers
 * (data-label, drawn by CSS with empty alternative text): a screen reader keeps reading a table
 * with its headers, and a cell's accessible name stays its content. The roles are written out
 * because some browsers drop a table's semantics once its display is changed.
 */
export function ListTable<T>({
  caption,
  columns,
  items,
  empty,
  rowKey,
  detail,
}: {
  caption: string;
  columns: Columns<T>;
  items: readonly T[];
  empty: string;
  rowKey: (item: T) => string | number;
  /** A row under the item's own, across every column (null: none). */
  detail?: (item: T) => ReactNode;
}) {
  const shown = columns.filter((c): c is Column<T> => Boolean(c));
  return (
    <div className="table-scroll">
      <table className="list stack" role="table">
        <caption>{caption}</caption>
        <thead role="rowgroup">
          <tr role="row">
            {shown.map((c) => (
              <th key={c.label} scope="col" role="columnheader" className={c.num ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {items.length === 0 ? (
            <tr role="row">
              <td role="cell" colSpan={shown.length} className="muted">
                {empty}
              </td>
            </tr>
          ) : (
            items.map((item) => {
              const extra = detail?.(item);
              return (
                <Fragment key={rowKey(item)}>
                  <tr role="row">
                    {shown.map((c) => (
                      <td key={c.label} role="cell" data-label={c.phone === 'title' || c.phone === 'title-wide' || c.phone === 'actions' ? undefined : c.label} className={cellClassName(c, item)}>
                        {c.cell(item)}
                      </td>
                    ))}
                  </tr>
                  {extra ? (
                    <tr role="row" className="detail-row">
                      <td role="cell" colSpan={shown.length}>
                        {extra}
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}
