import { useState, type ReactNode, type UIEvent } from 'react';

const OVERSCAN = 8;

/**
 * A list whose rows all have one height and of which only those in view (and a few around them)
 * are in the page: a cluster's tree of thousands of guests scrolls as fast as one of ten.
 */
export function VirtualRows<T>({
  rows,
  rowHeight,
  height,
  render,
  label,
}: {
  readonly rows: readonly T[];
  readonly rowHeight: number;
  readonly height: number;
  readonly render: (row: T) => ReactNode;
  readonly label: string;
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  return (
    <div
      role="tree"
      aria-label={label}
      className="corral-virtual"
      style={{ height, overflowY: 'auto' }}
      onScroll={(event: UIEvent<HTMLDivElement>) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <div style={{ height: rows.length * rowHeight, position: 'relative' }}>
        {rows.slice(first, last).map((row, i) => (
          <div key={first + i} style={{ position: 'absolute', top: (first + i) * rowHeight, height: rowHeight, left: 0, right: 0 }}>
            {render(row)}
          </div>
        ))}
      </div>
    </div>
  );
}
