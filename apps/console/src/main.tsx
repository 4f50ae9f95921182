import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import '@patternfly/react-core/dist/styles/base.css';
import './console.css';
import { ApiFailure } from './api/client';
import { App } from './app';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) is an answer, not a hiccup: it is shown at once, never retried.
      retry: (failures, error) => !(error instanceof ApiFailure && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
