import { describe, expect, it } from 'vitest';
import { parseProcessName } from './local-stack';

describe('parseProcessName', () => {
  it("maps the supervisor's pid file names to the service and the port of the instance", () => {
    expect(parseProcessName('order')).toEqual({ name: 'order', service: 'order', port: 3000 });
    expect(parseProcessName('payment-2')).toEqual({ name: 'payment-2', service: 'payment', port: 3101 });
    expect(parseProcessName('console')).toEqual({ name: 'console', service: 'console', port: 3005 });
  });

  it('ignores files that are not a stack process', () => {
    expect(parseProcessName('kafka')).toBeUndefined();
    expect(parseProcessName('order-x')).toBeUndefined();
  });
});
