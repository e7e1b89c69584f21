import type { ReactNode } from 'react';

/** A column of a list table; `num` right-aligns figures. A falsy entry (a column a role does not see) is left out. */
export interface Column {
  label: string;
  num?: boolean;
}

/**
 * Every list of the panel: a captioned table that scrolls on its own on a phone, one header per
 * column, a line saying so when there is nothing to show, one row per item.
 */
export function ListTable<T>({
  caption,
  columns,
  items,
  empty,
  row,
}: {
  caption: string;
  columns: Array<Column | false | null | undefined>;
  items: readonly T[];
  empty: string;
  row: (item: T) => ReactNode;
}) {
  const shown = columns.filter((c): c is Column => Boolean(c));
  return (
    <div className="table-scroll">
      <table className="list">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {shown.map((c) => (
              <th key={c.label} scope="col" className={c.num ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.length === 0 ? (
            <tr>
              <td colSpan={shown.length} className="muted">
                {empty}
              </td>
            </tr>
          ) : (
            items.map(row)
          )}
        </tbody>
      </table>
    </div>
  );
}
