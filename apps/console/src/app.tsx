import { useCallback, useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { setCredentials } from './api/client';
import { logout, renew, RENEW_MS, storedSession, type Session } from './api/session';
import { useTheme } from './theme';
import { LoginPage } from './views/login-page';
import { Shell } from './views/shell';

/** Logged out: the login page. Logged in: the console, its ticket renewed every 15 minutes; a 401 logs out. */
export function App() {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | null>(storedSession);
  const [theme, setTheme] = useTheme();
  const end = useCallback(() => {
    void logout();
    queryClient.clear();
    setSession(null);
  }, [queryClient]);
  setCredentials(session?.csrf ?? null, session ? end : () => undefined);

  useEffect(() => {
    if (!session) return;
    const timer = setTimeout(() => void renew(session).then(setSession, end), Math.max(0, session.since + RENEW_MS - Date.now()));
    return () => clearTimeout(timer);
  }, [session, end]);

  return session ? <Shell session={session} onLogout={end} theme={theme} setTheme={setTheme} /> : <LoginPage onLogin={setSession} />;
}
