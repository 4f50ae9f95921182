import type { SimGuest } from './sim-state.js';

/**
 * The simulated guests by vmid, and which guest holds each volume id: checking that a create's
 * volumes are free looks each one up, whatever the number of guests. Guests are replaced whole
 * (`set`), never their volume lists in place, so that the index always matches them.
 */
export class SimGuests {
  private readonly guests = new Map<number, SimGuest>();
  private readonly owners = new Map<string, number>();

  get(vmid: number): SimGuest | undefined {
    return this.guests.get(vmid);
  }

  values(): IterableIterator<SimGuest> {
    return this.guests.values();
  }

  /** Adds or replaces a guest; a replaced one keeps its place in `values()`. */
  set(guest: SimGuest): void {
    this.forgetVolumes(guest.vmid);
    this.guests.set(guest.vmid, guest);
    for (const volid of guest.volids) this.owners.set(volid, guest.vmid);
  }

  delete(vmid: number): void {
    this.forgetVolumes(vmid);
    this.guests.delete(vmid);
  }

  private forgetVolumes(vmid: number): void {
    for (const volid of this.guests.get(vmid)?.volids ?? []) if (this.owners.get(volid) === vmid) this.owners.delete(volid);
  }

  /** Whether a guest holds the volume `volid`. */
  holds(volid: string): boolean {
    return this.owners.has(volid);
  }
}
