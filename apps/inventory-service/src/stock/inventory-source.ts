/** CloudEvents `source` of what inventory-service writes to the outbox outside a consumed event. */
export const INVENTORY_SOURCE = 'inventory-service';
