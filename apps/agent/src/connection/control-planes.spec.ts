import { ControlPlanes } from './control-planes.js';

const url = (host: string) => new URL(`https://${host}:8006`);
const origins = (planes: ControlPlanes) => planes.all().map((each) => each.origin);

describe('ControlPlanes', () => {
  it('with one URL, waits after every failure (the backoff of a single control plane)', () => {
    const planes = new ControlPlanes([url('cp')]);
    expect(planes.next()).toBe(true);
    expect(planes.next()).toBe(true);
    expect(planes.current.origin).toBe('https://cp:8006');
  });

  it('moves to the next URL at once and waits only when every URL failed since the last welcome', () => {
    const planes = new ControlPlanes([url('a'), url('b'), url('c')]);
    expect(planes.next()).toBe(false);
    expect(planes.current.host).toBe('b:8006');
    expect(planes.next()).toBe(false);
    expect(planes.current.host).toBe('c:8006');
    expect(planes.next()).toBe(true);
    expect(planes.current.host).toBe('a:8006');
    planes.welcomed(undefined);
    expect(planes.next()).toBe(false);
  });

  it('adds the replicas a welcome names after the configured URLs, without doubles, and keeps the current one', () => {
    const planes = new ControlPlanes([url('lb'), url('a')]);
    planes.next();
    expect(planes.current.host).toBe('a:8006');
    planes.welcomed(['https://a:8006', 'https://b:8006']);
    expect(origins(planes)).toEqual(['https://lb:8006', 'https://a:8006', 'https://b:8006']);
    expect(planes.current.host).toBe('a:8006');
    expect(planes.next()).toBe(false);
    expect(planes.current.host).toBe('b:8006');
    planes.welcomed(['https://c:8006']);
    expect(origins(planes)).toEqual(['https://lb:8006', 'https://a:8006', 'https://c:8006']);
    expect(planes.current.host).toBe('lb:8006');
  });
});
