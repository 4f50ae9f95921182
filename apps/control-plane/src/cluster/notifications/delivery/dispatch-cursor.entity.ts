import { Column, Entity, PrimaryColumn } from 'typeorm';
import { BIGINT_NUMBER } from '../../../database/bigint-number.js';

/**
 * How far the webhook dispatcher has read the event table (one row): every event up to `seq` has
 * its deliveries. Moved in the transaction that makes them, so each event is dispatched once.
 */
@Entity({ name: 'notification_dispatch_cursor' })
export class DispatchCursorRow {
  /** Always 1. */
  @PrimaryColumn('smallint')
  id!: number;

  @Column('bigint', { transformer: BIGINT_NUMBER, default: 0 })
  seq!: number;
}
