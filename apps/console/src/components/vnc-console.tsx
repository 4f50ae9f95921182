import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Flex, Label } from '@patternfly/react-core';
import RFB from '@novnc/novnc';
import { API, call } from '../api/client';

interface VncProxy {
  readonly port: number;
  readonly ticket: string;
}

type State = { readonly kind: 'connecting' } | { readonly kind: 'connected' } | { readonly kind: 'closed'; readonly why: string };

/**
 * A VM's display in the page (noVNC), as PVE's interface opens it: `vncproxy` gives a one-time
 * ticket, and `vncwebsocket` carries the display's RFB over a websocket that the browser opens with
 * the ticket cookie. The display needs no VNC password: the ticket guards it.
 */
export function VncConsole({ node, vmid }: { readonly node: string; readonly vmid: number }) {
  const screen = useRef<HTMLDivElement>(null);
  const rfb = useRef<RFB | null>(null);
  const [state, setState] = useState<State>({ kind: 'connecting' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let cancelled = false;
    const path = `/nodes/${encodeURIComponent(node)}/qemu/${vmid}`;
    setState({ kind: 'connecting' });
    call<VncProxy>('POST', `${path}/vncproxy`, { websocket: 1 }).then(
      ({ port, ticket }) => {
        if (cancelled || !screen.current) return;
        const query = new URLSearchParams({ port: String(port), vncticket: ticket });
        const client = new RFB(screen.current, `wss://${window.location.host}${API}${path}/vncwebsocket?${query}`, {
          wsProtocols: ['binary'],
        });
        client.scaleViewport = true;
        client.background = 'var(--pf-t--global--background--color--inverse--default)';
        client.addEventListener('connect', () => setState({ kind: 'connected' }));
        client.addEventListener('disconnect', (event) =>
          setState({
            kind: 'closed',
            why: (event as CustomEvent<{ clean: boolean }>).detail.clean ? 'the console was closed' : 'the connection was lost',
          }),
        );
        client.addEventListener('securityfailure', (event) =>
          setState({ kind: 'closed', why: `refused: ${(event as CustomEvent<{ reason?: string }>).detail.reason ?? 'security failure'}` }),
        );
        rfb.current = client;
      },
      (error: Error) => !cancelled && setState({ kind: 'closed', why: error.message }),
    );
    return () => {
      cancelled = true;
      rfb.current?.disconnect();
      rfb.current = null;
    };
  }, [node, vmid, attempt]);

  return (
    <div>
      <Flex alignItems={{ default: 'alignItemsCenter' }} gap={{ default: 'gapSm' }} className="corral-console-bar">
        <Label color={state.kind === 'connected' ? 'green' : state.kind === 'connecting' ? 'blue' : 'grey'} data-testid="vnc-state">
          {state.kind}
        </Label>
        <Button variant="secondary" size="sm" isDisabled={state.kind !== 'connected'} onClick={() => rfb.current?.sendCtrlAltDel()}>
          Send Ctrl+Alt+Del
        </Button>
        <Button variant="secondary" size="sm" isDisabled={state.kind === 'connecting'} onClick={() => setAttempt((n) => n + 1)}>
          Reconnect
        </Button>
      </Flex>
      {state.kind === 'closed' && <Alert isInline isPlain variant="warning" title={`Console closed: ${state.why}`} />}
      <div ref={screen} className="corral-console-screen" data-testid="vnc" />
    </div>
  );
}
