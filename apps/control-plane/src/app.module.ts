import { Module, type DynamicModule } from '@nestjs/common';
import { CoreModule, type Runtime } from './http/core.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { VersionModule } from './version/version.module.js';

@Module({})
export class AppModule {
  static register(runtime: Runtime): DynamicModule {
    return { module: AppModule, imports: [CoreModule.register(runtime), VersionModule, OpenApiModule] };
  }
}
