package domain

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// Province is a Thai province with its 2-digit DOPA code.
type Province struct {
	Code   string `json:"code"`
	NameTh string `json:"name_th"`
	NameEn string `json:"name_en"`
}

// provinces.json: MIT, thailand-geography-data/thailand-geography-json
// src/provinces.json (see PROVINCES_LICENSE.md).
//
//go:embed provinces.json
var provincesJSON []byte

// Provinces lists the 77 provinces in DOPA code order.
var Provinces = func() []Province {
	var ps []Province
	if err := json.Unmarshal(provincesJSON, &ps); err != nil {
		panic("provinces.json: " + err.Error())
	}
	return ps
}()

// ProvinceCode maps a Thai or English province name (also "กรุงเทพฯ",
// "จังหวัดขอนแก่น", e-GP's 6-digit moiId "100000") to its DOPA code; "" for
// unknown and "ไม่ระบุ".
func ProvinceCode(name string) string {
	if c, ok := provinceByThai[name]; ok {
		return c
	}
	n := strings.TrimSpace(foldDigits(name))
	n = strings.TrimPrefix(n, "จังหวัด")
	n = strings.TrimPrefix(n, "จ.")
	n = strings.TrimSpace(n)
	if n == "" || n == "ไม่ระบุ" || n == "-" {
		return ""
	}
	if len(n) == 6 && strings.HasSuffix(n, "0000") {
		n = n[:2]
	}
	switch n {
	case "กรุงเทพฯ", "กทม.", "กรุงเทพ", "Bangkok Metropolis":
		return "10"
	}
	lower := strings.ToLower(strings.ReplaceAll(n, " ", ""))
	for _, p := range Provinces {
		if p.Code == n || p.NameTh == n || strings.ToLower(strings.ReplaceAll(p.NameEn, " ", "")) == lower {
			return p.Code
		}
	}
	if alias, ok := provinceAliases[lower]; ok {
		return alias
	}
	return ""
}

var provinceAliases = map[string]string{
	"loburi": "16", "phangnga": "82", "buriram": "31", "nongkhai": "43", "chonburi": "20",
	"prachinburi": "25", "ayutthaya": "14", "phranakhonsiayutthaya": "14",
}

// ProvinceName is the Thai name of a DOPA code.
func ProvinceName(code string) string {
	for _, p := range Provinces {
		if p.Code == code {
			return p.NameTh
		}
	}
	return ""
}

var provinceByThai = func() map[string]string {
	m := make(map[string]string, len(Provinces))
	for _, p := range Provinces {
		m[p.NameTh] = p.Code
	}
	return m
}()
