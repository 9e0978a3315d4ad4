import { Module } from '@nestjs/common';
import { SeedDemoCatalogue } from './seed-catalogue.service';

@Module({ providers: [SeedDemoCatalogue] })
export class SeedCatalogueModule {}
