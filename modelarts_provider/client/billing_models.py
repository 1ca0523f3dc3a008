"""Wire shapes of Huawei Cloud BSS's rating API for pay-per-use resources, as the official SDK names them
(huaweicloudsdkbss v2: ListOnDemandResourceRatings, RateOnDemandReq, DemandProductInfo,
ListOnDemandResourceRatingsResponse, DemandProductRatingResult).

    POST /v2/bills/ratings/on-demand-resources   (a global endpoint: https://bss.myhuaweicloud.com)

Declared once: the product's client (cost/rating.py) and the local billing service (billing_emulator)
both read and write these.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

RATING_PATH = "/v2/bills/ratings/on-demand-resources"
# usage_measure_id: 4 is the hour (the SDK's example: "按小时询价，使用量值为1，使用量单位为小时")
MEASURE_HOUR = 4
MEASURE_YUAN = 1  # measure_id of amounts: 1 = yuan
CLOUD_SERVICE_TYPE = "hws.service.type.ma"  # ModelArts
RESOURCE_TYPE = "hws.resource.type.ma.training"


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


class DemandProductInfo(_Wire):
    id: str = Field(min_length=1)  # unique within one request: maps a result to its product
    cloud_service_type: str = Field(min_length=1)
    resource_type: str = Field(min_length=1)
    resource_spec: str = Field(min_length=1)  # for ModelArts: the flavor's billing code
    region: str = Field(min_length=1)
    available_zone: str | None = None
    resource_size: int | None = None
    size_measure_id: int | None = None
    usage_factor: str = Field(min_length=1)  # "Duration"
    usage_value: Decimal = Field(gt=0)
    usage_measure_id: int
    subscription_num: int = Field(ge=1)


class RateOnDemandReq(_Wire):
    project_id: str = Field(min_length=1)
    inquiry_precision: int | None = None  # 0: 6 decimals, 1: 10 decimals
    product_infos: list[DemandProductInfo] = Field(min_length=1, max_length=100)


class DemandProductRatingResult(_Wire):
    id: str
    product_id: str | None = None
    amount: Decimal
    discount_amount: Decimal = Decimal(0)
    official_website_amount: Decimal | None = None
    measure_id: int = MEASURE_YUAN
    discount_rating_results: list[dict] = Field(default_factory=list)


class ListOnDemandResourceRatingsResponse(_Wire):
    amount: Decimal
    discount_amount: Decimal = Decimal(0)
    official_website_amount: Decimal | None = None
    measure_id: int = MEASURE_YUAN
    currency: str | None = None  # empty: CNY
    product_rating_results: list[DemandProductRatingResult] = Field(default_factory=list)
