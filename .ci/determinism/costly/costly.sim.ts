/**
 * Bundled examples whose seeds cost seconds each (a Postgres boots from its template in every seed;
 * the storefront's fetch calls, DNS and files), for the determinism matrix at MATRIX_COSTLY_SEEDS
 * seeds per cell instead of the others' count.
 */
import { ordersService } from "../../../examples/orders-service/orders-service.sim.ts";
import { storefront } from "../../../examples/storefront/storefront.sim.ts";
import { inMode } from "../in-mode.ts";

export const ordersServiceFast = inMode(ordersService, "fast");
export const ordersServiceParanoid = inMode(ordersService, "paranoid");
export const storefrontFast = inMode(storefront, "fast");
export const storefrontParanoid = inMode(storefront, "paranoid");
