import { Module } from '@nestjs/common';
import { PasswordController } from './password.controller.js';
import { PasswordService } from './password.service.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';

/** `/access/users` and `/access/password`. */
@Module({ controllers: [UsersController, PasswordController], providers: [UsersService, PasswordService] })
export class UsersModule {}
