import { useEffect, useState } from 'react';

/** What the main area shows, kept in the URL's hash so that a view can be bookmarked and reloaded. */
export type Route =
  | { readonly view: 'dashboard' }
  | { readonly view: 'tasks'; readonly upid?: string }
  | { readonly view: 'events' }
  | { readonly view: 'access' }
  | { readonly view: 'create-vm' }
  | { readonly view: 'create-ct' }
  | { readonly view: 'node'; readonly node: string }
  | { readonly view: 'guest'; readonly vmid: number }
  | { readonly view: 'storage'; readonly node: string; readonly storage: string }
  | { readonly view: 'pool'; readonly pool: string };

export function href(route: Route): string {
  switch (route.view) {
    case 'dashboard':
      return '#/';
    case 'tasks':
      return route.upid ? `#/tasks/${encodeURIComponent(route.upid)}` : '#/tasks';
    case 'events':
    case 'access':
      return `#/${route.view}`;
    case 'create-vm':
      return '#/create/qemu';
    case 'create-ct':
      return '#/create/lxc';
    case 'node':
      return `#/node/${encodeURIComponent(route.node)}`;
    case 'guest':
      return `#/guest/${route.vmid}`;
    case 'storage':
      return `#/storage/${encodeURIComponent(route.node)}/${encodeURIComponent(route.storage)}`;
    case 'pool':
      return `#/pool/${encodeURIComponent(route.pool)}`;
  }
}

export function parseRoute(hash: string): Route {
  const [view, ...rest] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (view === 'tasks') return rest[0] ? { view, upid: rest[0] } : { view };
  if (view === 'events' || view === 'access') return { view };
  if (view === 'create' && rest[0] === 'qemu') return { view: 'create-vm' };
  if (view === 'create' && rest[0] === 'lxc') return { view: 'create-ct' };
  if (view === 'node' && rest[0]) return { view, node: rest[0] };
  if (view === 'guest' && /^\d+$/.test(rest[0] ?? '')) return { view, vmid: Number(rest[0]) };
  if (view === 'storage' && rest[0] && rest[1]) return { view, node: rest[0], storage: rest[1] };
  if (view === 'pool' && rest[0]) return { view, pool: rest[0] };
  return { view: 'dashboard' };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
