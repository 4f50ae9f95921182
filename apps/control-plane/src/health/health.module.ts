import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { Readiness } from './readiness.js';

@Module({ controllers: [HealthController], providers: [Readiness] })
export class HealthModule {}
