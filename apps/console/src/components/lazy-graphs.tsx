import { lazy, Suspense } from 'react';
import { Spinner } from '@patternfly/react-core';

/** uPlot is loaded with the first graphs shown, not with the page. */
const HistoryGraphs = lazy(() => import('./history-graphs').then((module) => ({ default: module.HistoryGraphs })));
const ClusterHistory = lazy(() => import('./history-graphs').then((module) => ({ default: module.ClusterGraphs })));

export function Graphs({ path, kind }: { readonly path: string; readonly kind: 'node' | 'guest' }) {
  return (
    <Suspense fallback={<Spinner aria-label="Loading the graphs" />}>
      <HistoryGraphs path={path} kind={kind} />
    </Suspense>
  );
}

export function ClusterGraphs({ nodes }: { readonly nodes: readonly string[] }) {
  return (
    <Suspense fallback={<Spinner aria-label="Loading the graphs" />}>
      <ClusterHistory nodes={nodes} />
    </Suspense>
  );
}
