import { moonpoolPingPong, miniPingPong } from "./peers-steps.ts";
for (let i = 0; i < 6; i++) console.log((await moonpoolPingPong()).toFixed(0), (await miniPingPong()).toFixed(0));
