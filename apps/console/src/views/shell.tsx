import { useEffect, useState } from 'react';
import {
  Alert,
  Button,
  Masthead,
  MastheadBrand,
  MastheadContent,
  MastheadLogo,
  MastheadMain,
  MastheadToggle,
  Nav,
  NavItem,
  NavList,
  Page,
  PageSidebar,
  PageSidebarBody,
  PageToggleButton,
  Spinner,
  ToggleGroup,
  ToggleGroupItem,
  Toolbar,
  ToolbarContent,
  ToolbarGroup,
  ToolbarItem,
} from '@patternfly/react-core';
import BarsIcon from '@patternfly/react-icons/dist/esm/icons/bars-icon';
import MoonIcon from '@patternfly/react-icons/dist/esm/icons/moon-icon';
import SunIcon from '@patternfly/react-icons/dist/esm/icons/sun-icon';
import { useLiveEvents } from '../api/live-events';
import { usePrivileges } from '../api/privileges';
import { onlineNodes, useResources, type Resource } from '../api/resources';
import type { Session } from '../api/session';
import { ResourceTree } from '../components/resource-tree';
import { href, useRoute, type Route } from '../routing';
import type { Theme } from '../theme';
import { AccessView } from './access-view';
import { CreateCtWizard } from './create-ct-wizard';
import { CreateVmWizard } from './create-vm-wizard';
import { Dashboard } from './dashboard';
import { EventsView } from './events-view';
import { GuestView } from './guest-view';
import { NodeView } from './node-view';
import { Missing, PoolView, StorageView } from './other-views';
import { TasksView } from './tasks-view';

/** The views that are not one resource's, listed above the tree. */
const PLACES: readonly { readonly route: Route; readonly label: string }[] = [
  { route: { view: 'dashboard' }, label: 'Datacenter' },
  { route: { view: 'tasks' }, label: 'Tasks' },
  { route: { view: 'events' }, label: 'Events' },
  { route: { view: 'access' }, label: 'Access' },
];

/** The logged-in console: the masthead, the resource tree beside the view the URL names. */
export function Shell({
  session,
  onLogout,
  theme,
  setTheme,
}: {
  readonly session: Session;
  readonly onLogout: () => void;
  readonly theme: Theme;
  readonly setTheme: (theme: Theme) => void;
}) {
  const route = useRoute();
  const resources = useResources();
  const { events, connected } = useLiveEvents();
  const treeHeight = useSidebarHeight();
  const mayCreate = usePrivileges('/vms').has('VM.Allocate');
  // PatternFly's sidebar sits beside the view on a wide screen and over it on a narrow one ("mobile
  // view"), where it gets out of the way once a view is chosen.
  const [mobile, setMobile] = useState(false);
  const [sidebarOpen, setSidebarOpen] = useState(true);
  useEffect(() => {
    if (mobile) setSidebarOpen(false);
  }, [route, mobile]);

  const masthead = (
    <Masthead>
      <MastheadMain>
        <MastheadToggle>
          <PageToggleButton
            variant="plain"
            aria-label="Resource tree"
            isSidebarOpen={sidebarOpen}
            onSidebarToggle={() => setSidebarOpen((open) => !open)}
          >
            <BarsIcon />
          </PageToggleButton>
        </MastheadToggle>
        <MastheadBrand>
          <MastheadLogo href="#/">
            <img src="/favicon.svg" alt="" width={28} height={28} /> <span className="corral-brand">Corral</span>
          </MastheadLogo>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>
        <Toolbar isFullHeight>
          <ToolbarContent>
            <ToolbarGroup align={{ default: 'alignEnd' }}>
              {mayCreate && (
                <ToolbarItem>
                  <Button variant="primary" component="a" href={href({ view: 'create-vm' })}>
                    Create VM
                  </Button>
                </ToolbarItem>
              )}
              {mayCreate && (
                <ToolbarItem>
                  <Button variant="secondary" component="a" href={href({ view: 'create-ct' })}>
                    Create CT
                  </Button>
                </ToolbarItem>
              )}
              <ToolbarItem visibility={{ default: 'hidden', md: 'visible' }}>
                <span className="corral-live" data-connected={connected}>
                  {connected ? 'live' : 'reconnecting'}
                </span>
              </ToolbarItem>
              <ToolbarItem>
                <ToggleGroup aria-label="Theme">
                  <ToggleGroupItem
                    icon={<SunIcon />}
                    aria-label="Light theme"
                    isSelected={theme === 'light'}
                    onChange={() => setTheme('light')}
                  />
                  <ToggleGroupItem
                    icon={<MoonIcon />}
                    aria-label="Dark theme"
                    isSelected={theme === 'dark'}
                    onChange={() => setTheme('dark')}
                  />
                </ToggleGroup>
              </ToolbarItem>
              <ToolbarItem visibility={{ default: 'hidden', md: 'visible' }}>
                <span data-testid="user">{session.username}</span>
              </ToolbarItem>
              <ToolbarItem>
                <Button variant="secondary" onClick={onLogout}>
                  Log out
                </Button>
              </ToolbarItem>
            </ToolbarGroup>
          </ToolbarContent>
        </Toolbar>
      </MastheadContent>
    </Masthead>
  );

  const sidebar = (
    <PageSidebar isSidebarOpen={sidebarOpen}>
      <PageSidebarBody isFilled>
        <Nav aria-label="Views">
          <NavList>
            {PLACES.map(({ route: place, label }) => (
              <NavItem key={place.view} to={href(place)} isActive={route.view === place.view}>
                {label}
              </NavItem>
            ))}
          </NavList>
        </Nav>
        {resources.data ? (
          <ResourceTree resources={resources.data} current={route} height={treeHeight} />
        ) : (
          <Spinner aria-label="Loading" />
        )}
      </PageSidebarBody>
    </PageSidebar>
  );

  return (
    <Page masthead={masthead} sidebar={sidebar} onPageResize={(_event, { mobileView }) => setMobile(mobileView)}>
      {resources.isError ? (
        <Alert variant="danger" isInline title="The cluster's resources cannot be read">
          {resources.error.message}
        </Alert>
      ) : resources.data ? (
        <View route={route} resources={resources.data} events={events} username={session.username} />
      ) : (
        <Spinner aria-label="Loading" />
      )}
    </Page>
  );
}

function View({
  route,
  resources,
  events,
  username,
}: {
  readonly route: Route;
  readonly resources: readonly Resource[];
  readonly events: Parameters<typeof Dashboard>[0]['live'];
  readonly username: string;
}) {
  switch (route.view) {
    case 'dashboard':
      return <Dashboard resources={resources} live={events} />;
    case 'node': {
      const node = resources.find((r) => r.type === 'node' && r.node === route.node);
      return node ? <NodeView key={route.node} node={node} resources={resources} /> : <Missing what={`node '${route.node}'`} />;
    }
    case 'guest': {
      const guest = resources.find((r) => (r.type === 'qemu' || r.type === 'lxc') && r.vmid === route.vmid);
      return guest ? <GuestView key={guest.vmid} guest={guest} nodes={onlineNodes(resources)} /> : <Missing what={`guest ${route.vmid}`} />;
    }
    case 'storage': {
      const storage = resources.find((r) => r.type === 'storage' && r.node === route.node && r.storage === route.storage);
      return storage ? <StorageView storage={storage} /> : <Missing what={`storage '${route.storage}' on '${route.node}'`} />;
    }
    case 'pool':
      return <PoolView pool={route.pool} resources={resources} />;
    case 'tasks':
      return <TasksView opened={route.upid} />;
    case 'events':
      return <EventsView live={events} />;
    case 'access':
      return <AccessView username={username} />;
    case 'create-vm':
      return <CreateVmWizard resources={resources} />;
    case 'create-ct':
      return <CreateCtWizard resources={resources} />;
  }
}

/** The tree fills the sidebar below the masthead, and follows the window's height. */
function useSidebarHeight(): number {
  // Below the masthead and the four links above the tree.
  const measure = () => Math.max(200, window.innerHeight - 260);
  const [height, setHeight] = useState(measure);
  useEffect(() => {
    const onResize = () => setHeight(measure());
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return height;
}
