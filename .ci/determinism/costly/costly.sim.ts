/**
 * Bundled examples whose seeds cost seconds each (a Postgres boots from its template in every seed),
 * for the determinism matrix at MATRIX_COSTLY_SEEDS seeds per cell instead of the others' count.
 */
import { ordersService } from "../../../examples/orders-service/orders-service.sim.ts";
import { inMode } from "../in-mode.ts";

export const ordersServiceFast = inMode(ordersService, "fast");
export const ordersServiceParanoid = inMode(ordersService, "paranoid");
