import CubeIcon from '@patternfly/react-icons/dist/esm/icons/cube-icon';
import DatabaseIcon from '@patternfly/react-icons/dist/esm/icons/database-icon';
import DesktopIcon from '@patternfly/react-icons/dist/esm/icons/desktop-icon';
import LayerGroupIcon from '@patternfly/react-icons/dist/esm/icons/layer-group-icon';
import ServerIcon from '@patternfly/react-icons/dist/esm/icons/server-icon';
import type { Resource } from '../api/resources';

type Tone = 'ok' | 'off' | 'warn' | 'bad';

/** Green when running or online, grey when stopped, amber when paused or unknown, red when offline. */
export function toneOf(resource: Resource): Tone {
  switch (resource.status) {
    case 'online':
    case 'running':
    case 'available':
      return 'ok';
    case 'stopped':
      return 'off';
    case 'offline':
      return 'bad';
    default:
      return resource.type === 'pool' ? 'ok' : 'warn';
  }
}

const ICONS = { node: ServerIcon, qemu: DesktopIcon, lxc: CubeIcon, storage: DatabaseIcon, pool: LayerGroupIcon, sdn: LayerGroupIcon };

/** The resource's kind as an icon, coloured by its state, which is also said in words for screen readers. */
export function StatusIcon({ resource }: { readonly resource: Resource }) {
  const Icon = ICONS[resource.type];
  const tone = toneOf(resource);
  return (
    <span className={`corral-status corral-status--${tone}`} title={resource.status ?? ''}>
      <Icon aria-hidden />
      <span className="pf-v6-screen-reader">{resource.status ?? ''}</span>
    </span>
  );
}
