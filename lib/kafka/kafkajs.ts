// kafkajs is CommonJS and Node's ESM loader cannot see its named exports, so the values
// are taken from the default export once, here.
import kafkajs from "kafkajs";

export const { Kafka, Partitioners, AssignerProtocol, ConfigResourceTypes, logLevel } = kafkajs;
