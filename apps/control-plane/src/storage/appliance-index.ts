import { Inject, Injectable } from '@nestjs/common';
import { gunzipSync } from 'node:zlib';
import { CONFIG, type Config } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { parseAplinfo, type Appliance } from './aplinfo-index.js';

/** An index read is reused this long, as PVE lists the index its daily `pveam update` stored. */
const FRESH_MS = 10 * 60_000;
const READ_MS = 30_000;
/** PVE's index is about 100 KiB; anything near this is no index. */
const MAX_INDEX_BYTES = 16 * 1024 * 1024;

/**
 * The appliance index at CORRAL_APLINFO_URL (an operator's setting, so read without the address
 * rules of a user's URL), read by the control plane when asked and kept FRESH_MS. A read that fails
 * falls back to the last one read; with none, it is a 502 naming the URL.
 */
@Injectable()
export class ApplianceIndex {
  private last: { readonly at: number; readonly appliances: readonly Appliance[] } | null = null;
  private reading: Promise<readonly Appliance[]> | null = null;

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  async appliances(): Promise<readonly Appliance[]> {
    if (this.last !== null && Date.now() - this.last.at < FRESH_MS) return this.last.appliances;
    this.reading ??= this.read().finally(() => (this.reading = null));
    return this.reading;
  }

  private async read(): Promise<readonly Appliance[]> {
    const url = this.config.aplinfoUrl;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(READ_MS) });
      if (!response.ok) throw new Error(`answered ${response.status}`);
      const body = Buffer.from(await response.arrayBuffer());
      if (body.length > MAX_INDEX_BYTES) throw new Error(`more than ${MAX_INDEX_BYTES} bytes`);
      // PVE's index is also published gzip-compressed (`.dat.gz`).
      const text = (body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body, { maxOutputLength: MAX_INDEX_BYTES }) : body).toString('utf8');
      this.last = { at: Date.now(), appliances: parseAplinfo(text, url) };
      return this.last.appliances;
    } catch (error) {
      if (this.last !== null) return this.last.appliances;
      throw new ApiError('UPSTREAM_FAILED', `cannot read the appliance index ${url}: ${(error as Error).message}`);
    }
  }
}
