import { Controller } from '@nestjs/common';
import { Endpoint, type ResultOf } from '../../http/endpoint.js';
import { HA_STATUS_ENDPOINTS, type HaStatusEndpoints } from './ha-status.endpoints.js';
import { HaStatusService } from './ha-status.service.js';

/** `/cluster/ha` and its status reads. */
@Controller()
export class HaStatusController {
  constructor(private readonly ha: HaStatusService) {}

  @Endpoint(HA_STATUS_ENDPOINTS.index)
  index(): ResultOf<HaStatusEndpoints['index']> {
    return [{ id: 'status' }, { id: 'resources' }, { id: 'groups' }];
  }

  /** Corral's HA status: the same entries as PVE's `status/current`. */
  @Endpoint(HA_STATUS_ENDPOINTS.status)
  status(): Promise<ResultOf<HaStatusEndpoints['status']>> {
    return this.ha.current();
  }

  @Endpoint(HA_STATUS_ENDPOINTS.current)
  current(): Promise<ResultOf<HaStatusEndpoints['current']>> {
    return this.ha.current();
  }

  @Endpoint(HA_STATUS_ENDPOINTS.managerStatus)
  managerStatus(): Promise<ResultOf<HaStatusEndpoints['managerStatus']>> {
    return this.ha.managerStatus();
  }
}
