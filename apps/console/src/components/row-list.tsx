import type { ReactNode } from 'react';
import { DataList, DataListAction, DataListCell, DataListItem, DataListItemCells, DataListItemRow } from '@patternfly/react-core';

/** One row: its cells, and the buttons that act on it. */
export interface Row {
  readonly key: string;
  readonly cells: readonly ReactNode[];
  readonly actions?: ReactNode;
}

/** Rows of cells with their actions at the end, under an optional row of headers: the console's one way to show a list. */
export function RowList({
  label,
  testId,
  rows,
  headers,
  state,
}: {
  readonly label: string;
  readonly testId: string;
  readonly rows: readonly Row[];
  readonly headers?: readonly string[];
  /** The read's state (`pending`, `success`, `error`), for whoever waits for the list. */
  readonly state?: string;
}) {
  return (
    <DataList aria-label={label} isCompact data-testid={testId} data-state={state}>
      {headers && (
        <DataListItem className="corral-list-head">
          <DataListItemRow>
            <DataListItemCells
              dataListCells={headers.map((header) => (
                <DataListCell key={header}>{header}</DataListCell>
              ))}
            />
          </DataListItemRow>
        </DataListItem>
      )}
      {rows.map((row) => (
        <DataListItem key={row.key} aria-label={row.key}>
          <DataListItemRow>
            <DataListItemCells
              dataListCells={row.cells.map((cell, i) => (
                <DataListCell key={i}>{cell}</DataListCell>
              ))}
            />
            {row.actions && (
              <DataListAction aria-label={`Actions of ${row.key}`} aria-labelledby="" id={`actions-${row.key}`}>
                {row.actions}
              </DataListAction>
            )}
          </DataListItemRow>
        </DataListItem>
      ))}
    </DataList>
  );
}
