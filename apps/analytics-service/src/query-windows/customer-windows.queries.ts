import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@pipeline/service-kit';
import type { PrismaClient } from '../generated/prisma/client';
import type { CustomerWindowsView, WindowsQuery } from './query-windows.request';

@Injectable()
export class CustomerWindowsQueries {
  constructor(@Inject(DATABASE) private readonly database: PrismaClient) {}

  /** Windows overlapping [from, to), and the late events whose event time is in it. */
  async read(customerId: string, { from, to }: WindowsQuery): Promise<CustomerWindowsView> {
    const [windows, late] = await Promise.all([
      this.database.customerWindow.findMany({
        where: {
          customerId,
          ...(from ? { windowEnd: { gt: from } } : {}),
          ...(to ? { windowStart: { lt: to } } : {}),
        },
        orderBy: { windowStart: 'asc' },
      }),
      this.database.lateEvent.count({
        where: { customerId, eventTime: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } },
      }),
    ]);
    return {
      customerId,
      windows: windows.map((window) => ({
        windowStart: window.windowStart.toISOString(),
        windowEnd: window.windowEnd.toISOString(),
        placed: window.placed,
        confirmed: window.confirmed,
        cancelled: window.cancelled,
        revenue: window.revenue.toFixed(2),
      })),
      late,
    };
  }
}
