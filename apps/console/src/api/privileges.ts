import { useQuery } from '@tanstack/react-query';
import { call } from './client';

/**
 * The caller's privileges on one ACL path, as `GET /access/permissions?path=` computes them (with
 * propagation, groups and token limits): what the console may offer there. The API checks every
 * call again; this only hides or disables what would be refused.
 */
export function usePrivileges(path: string): { readonly has: (privilege: string) => boolean; readonly loaded: boolean } {
  const query = useQuery({
    queryKey: ['access', 'permissions', path],
    queryFn: () => call<Record<string, Record<string, number>>>('GET', '/access/permissions', { path }),
    staleTime: 30_000,
  });
  const granted = query.data?.[path] ?? {};
  // A privilege held is listed; its value says whether it propagates below the path.
  return { has: (privilege) => privilege in granted, loaded: query.isSuccess };
}
