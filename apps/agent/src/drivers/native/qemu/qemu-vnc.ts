import { connect, type Socket } from 'node:net';
import type { QemuRuntimeFiles } from './qemu-runtime-files.js';
import { vmFailure } from './vm-failure.js';

/**
 * A connection to a running VM's VNC display: QEMU's `-vnc unix:` socket, where it speaks RFB to
 * each client that connects. The caller closes it.
 */
export function connectVnc(vmid: number, files: QemuRuntimeFiles): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(files.vnc);
    const failed = (error: Error) => reject(vmFailure(vmid, 'could not connect to its VNC display', error));
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.off('error', failed);
      resolve(socket);
    });
  });
}
