import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { AuthModule } from './access/auth/auth.module.js';
import { CONFIG, type Config } from './config/config.js';
import { DatabaseNotifications } from './database/notifications.js';
import { LOGGER } from './logging/loggers.js';
import { TLS_FINGERPRINT } from './tls/certificate.js';
import { BUILD_INFO, type BuildInfo } from './version/build-info.js';
import { EndpointGuard } from './access/auth/endpoint.guard.js';
import { InventoryModule } from './inventory/inventory.module.js';
import { EndpointRegistry } from './http/endpoint-registry.js';
import { ErrorEnvelopeFilter } from './http/error-envelope.filter.js';
import { ResponseCheckInterceptor } from './http/response-check.interceptor.js';
import { WebSocketUpgrades } from './http/websocket-upgrades.js';

/** What main() has set up before Nest starts. */
export interface Runtime {
  readonly config: Config;
  readonly logger: Logger;
  readonly dataSource: DataSource;
  readonly build: BuildInfo;
  /** The SHA-256 fingerprint of the certificate this replica serves: agents pin it when they join. */
  readonly fingerprint: string;
}

/** The machinery every API area relies on: settings, logger, database and its notifications, authentication, the endpoint registry, guard and error filter, the websocket upgrades. */
@Global()
@Module({})
export class CoreModule {
  static register(runtime: Runtime): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        DiscoveryModule,
        TypeOrmModule.forRootAsync({
          useFactory: () => runtime.dataSource.options,
          dataSourceFactory: () => Promise.resolve(runtime.dataSource),
        }),
        AuthModule,
        // The guard reads the nodes.
        InventoryModule,
      ],
      providers: [
        { provide: CONFIG, useValue: runtime.config },
        { provide: LOGGER, useValue: runtime.logger },
        { provide: BUILD_INFO, useValue: runtime.build },
        { provide: TLS_FINGERPRINT, useValue: runtime.fingerprint },
        DatabaseNotifications,
        EndpointRegistry,
        WebSocketUpgrades,
        { provide: APP_GUARD, useClass: EndpointGuard },
        {
          provide: APP_FILTER,
          inject: [EndpointRegistry, LOGGER],
          useFactory: (registry: EndpointRegistry, logger: Logger) => new ErrorEnvelopeFilter(registry, logger, runtime.config.errorFormat),
        },
        ...(runtime.config.checkResponses ? [{ provide: APP_INTERCEPTOR, useClass: ResponseCheckInterceptor }] : []),
      ],
      exports: [CONFIG, LOGGER, BUILD_INFO, TLS_FINGERPRINT, DatabaseNotifications, EndpointRegistry, WebSocketUpgrades],
    };
  }
}
