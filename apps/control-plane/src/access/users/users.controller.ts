import { Controller } from '@nestjs/common';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { Caller, type Principal } from '../../http/principal.js';
import { createUser, deleteUser, getUser, listUsers, updateUser } from './users.endpoints.js';
import { UsersService } from './users.service.js';

@Controller()
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Endpoint(listUsers)
  list(@Caller() caller: Principal, @Params() params: ParamsOf<typeof listUsers>): Promise<ResultOf<typeof listUsers>> {
    return this.users.list(caller, params);
  }

  @Endpoint(createUser)
  async create(@Params() params: ParamsOf<typeof createUser>): Promise<null> {
    await this.users.create(params);
    return null;
  }

  @Endpoint(getUser)
  get(@Params() params: ParamsOf<typeof getUser>): Promise<ResultOf<typeof getUser>> {
    return this.users.get(params.userid);
  }

  @Endpoint(updateUser)
  async update(@Params() params: ParamsOf<typeof updateUser>): Promise<null> {
    await this.users.update(params);
    return null;
  }

  @Endpoint(deleteUser)
  async remove(@Params() params: ParamsOf<typeof deleteUser>): Promise<null> {
    await this.users.remove(params.userid);
    return null;
  }
}
